import { useEffect, useState } from 'react';
import { env } from '@/config/env';
import { Teaser } from '@/features/teaser/components/teaser';
import { loadedLogbook, loadLogbook } from './load-logbook';

export function App() {
  if (!env.logbookOpen) return <Teaser />;
  return <LogbookWhenLoaded />;
}

/**
 * The logbook, rendered as soon as its code is there: at once when main.tsx has already loaded it.
 * (Not React.lazy: a Suspense boundary that showed its fallback holds the content back for up to
 * 300 ms more, which was a third of the time to the first entries.)
 */
function LogbookWhenLoaded() {
  const [Logbook, setLogbook] = useState(loadedLogbook);
  useEffect(() => {
    if (!Logbook) void loadLogbook().then((component) => setLogbook(() => component));
  }, [Logbook]);
  return Logbook ? <Logbook /> : null;
}
