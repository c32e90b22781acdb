import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { captureConsoleErrors } from './console';

captureConsoleErrors();

// Test globals are off, so Testing Library cannot register its own cleanup. Registered after the
// console check so that it runs before it (after-hooks run in reverse): errors logged while
// unmounting are caught too.
afterEach(() => {
  cleanup();
});
