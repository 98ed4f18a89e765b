/**
 * The floor of the sign-in route's JavaScript (bench/budget.ts): a Mantine sign-in form and nothing
 * else — React DOM, Mantine's provider, a title, two inputs, an alert for a refusal and a button,
 * sending the form with `fetch`. No router, i18n, session or error catalogue: what the console's
 * sign-in route adds to this is the app's figure over the floor's.
 */
import { Alert, Button, MantineProvider, Paper, PasswordInput, Stack, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { createRoot } from 'react-dom/client';

function SignIn() {
  const [failed, setFailed] = useState(false);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const body = JSON.stringify(Object.fromEntries(new FormData(event.currentTarget)));
    void fetch('/api/v1/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((response) => setFailed(!response.ok));
  };
  return (
    <Paper component="form" onSubmit={submit} p="lg" maw={360} mx="auto">
      <Stack>
        <Title order={2}>Sign in</Title>
        {failed && <Alert color="red">Wrong username or password</Alert>}
        <TextInput name="username" label="Username" required />
        <PasswordInput name="password" label="Password" required />
        <Button type="submit">Sign in</Button>
      </Stack>
    </Paper>
  );
}

createRoot(document.getElementById('root')!).render(
  <MantineProvider>
    <SignIn />
  </MantineProvider>,
);
