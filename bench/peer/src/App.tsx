import { lazy, Suspense } from 'react';
import { env } from './env';
import { Teaser } from './teaser';

// Split like ours: the logbook (and supabase-js, zod) load only when it is open.
const Logbook = lazy(() => import('./logbook/logbook').then((module) => ({ default: module.Logbook })));

export function App() {
  if (!env.logbookOpen) return <Teaser />;
  return (
    <Suspense fallback={null}>
      <Logbook />
    </Suspense>
  );
}
