import { Center, Loader } from '@mantine/core';

/** What a screen shows while its code or the session is on its way; apart from the guard, so the sign-in screen has it without the router. */
export function FullPageLoader() {
  return (
    <Center h="100vh">
      <Loader />
    </Center>
  );
}
