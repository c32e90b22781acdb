import { lazy, Suspense } from 'react';
import { env } from '@/config/env';
import { Teaser } from '@/features/teaser/components/teaser';

// Loaded only when the logbook is open, so the teaser never fetches the wasm client.
const Logbook = lazy(() =>
  import('@/features/logbook/components/logbook').then((module) => ({ default: module.Logbook })),
);

export function App() {
  if (!env.logbookOpen) return <Teaser />;
  return (
    <Suspense fallback={null}>
      <Logbook />
    </Suspense>
  );
}
