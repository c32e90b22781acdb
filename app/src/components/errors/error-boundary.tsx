import { Component, type ErrorInfo, type ReactNode } from 'react';

export interface ErrorBoundaryFallbackProps {
  readonly error: unknown;
  /** Renders the children again, from scratch. */
  readonly reset: () => void;
}

interface ErrorBoundaryProps {
  readonly children: ReactNode;
  /** Shown instead of the children once one of them has thrown while rendering. */
  readonly fallback: (props: ErrorBoundaryFallbackProps) => ReactNode;
  /** Called once for each error caught (the place to log it). */
  readonly onError: (error: unknown, info: ErrorInfo) => void;
}

type ErrorBoundaryState = { readonly failed: false } | { readonly failed: true; readonly error: unknown };

/**
 * Catches what its children throw while rendering (or in their effects) and shows `fallback` instead of
 * unmounting the whole page. A class because React has no hook for this; it is small enough that a
 * library (react-error-boundary) would add more than it saves. Errors in event handlers and promises
 * are not render errors: their own code handles them.
 */
export class ErrorBoundary extends Component<ErrorBoundaryProps, ErrorBoundaryState> {
  override state: ErrorBoundaryState = { failed: false };

  static getDerivedStateFromError(error: unknown): ErrorBoundaryState {
    return { failed: true, error };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    this.props.onError(error, info);
  }

  private readonly reset = (): void => {
    this.setState({ failed: false });
  };

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    return this.props.fallback({ error: this.state.error, reset: this.reset });
  }
}
