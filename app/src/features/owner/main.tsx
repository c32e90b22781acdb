import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { OwnerPage } from './components/owner-page';

// The owner's page (owner.html): a second page of the site, never linked from the visitor's page.
const root = document.getElementById('owner-root');
if (root === null) throw new Error('owner.html has no #owner-root');
createRoot(root).render(
  <StrictMode>
    <OwnerPage />
  </StrictMode>,
);
