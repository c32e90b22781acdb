import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// Our page's own stylesheets and teaser text (never copies): the two pages look and read the same.
import '../../../app/src/app/global.css';
import { App } from './App';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
