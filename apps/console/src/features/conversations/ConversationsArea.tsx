import { Route, Routes } from 'react-router';
import ConversationsPage from './ConversationsPage.tsx';

/** `/conversations` lists the chats; `/conversations/<id>` opens one beside the list, so it can be linked. */
export default function ConversationsArea() {
  return (
    <Routes>
      <Route index element={<ConversationsPage />} />
      <Route path=":conversationId" element={<ConversationsPage />} />
    </Routes>
  );
}
