import type { ErrorInfo, ReactNode } from 'react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ErrorBoundary, type ErrorBoundaryFallbackProps } from './error-boundary';

/** What Child throws while rendering, if anything. */
const failure: { error: Error | null } = { error: null };

function Child() {
  if (failure.error) throw failure.error;
  return <p>child</p>;
}

function Fallback({ error, reset }: ErrorBoundaryFallbackProps) {
  return (
    <button type="button" onClick={reset}>
      {error instanceof Error ? error.message : 'not an error'}
    </button>
  );
}

// React's own report of a caught error is switched off, as on the page (render-app.tsx): the boundary reports.
function renderInBoundary(onError: (error: unknown, info: ErrorInfo) => void): void {
  const ui: ReactNode = (
    <ErrorBoundary fallback={Fallback} onError={onError}>
      <Child />
    </ErrorBoundary>
  );
  render(ui, { onCaughtError: () => undefined });
}

describe('ErrorBoundary', () => {
  it('renders its children while they render', () => {
    failure.error = null;
    const onError = vi.fn<(error: unknown, info: ErrorInfo) => void>();
    renderInBoundary(onError);
    expect(screen.getByText('child')).toBeVisible();
    expect(onError).not.toHaveBeenCalled();
  });

  it('shows the fallback with the error a child threw, reports it once, and renders the children again on reset', async () => {
    const error = new WebAssembly.RuntimeError('unreachable');
    failure.error = error;
    const onError = vi.fn<(error: unknown, info: ErrorInfo) => void>();
    renderInBoundary(onError);

    expect(screen.getByRole('button', { name: 'unreachable' })).toBeVisible();
    expect(screen.queryByText('child')).not.toBeInTheDocument();
    expect(onError).toHaveBeenCalledTimes(1);
    const [caught, info] = onError.mock.calls[0] ?? [];
    expect(caught).toBe(error);
    expect(info?.componentStack).toContain('Child');

    failure.error = null;
    await userEvent.click(screen.getByRole('button'));
    expect(screen.getByText('child')).toBeVisible();
    expect(onError).toHaveBeenCalledTimes(1);
  });
});
