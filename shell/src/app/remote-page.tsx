import { Component, useState, type ErrorInfo, type ReactNode } from 'react';
import { useLocation } from 'react-router';
import type { PageRoute } from '@gift/content';
import { usePage, usePageSource } from './page-source.ts';
import { RemoteUnavailable } from './remote-unavailable.tsx';

interface BoundaryProps {
  remote: string;
  children: ReactNode;
}

/** Catches a remote page that throws while rendering; the rest of the site keeps working. */
class RemotePageBoundary extends Component<BoundaryProps, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error(
      `[shell] A page of the ${this.props.remote} remote failed while rendering.`,
      error,
      info.componentStack,
    );
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return <RemoteUnavailable onRetry={() => this.setState({ failed: false })} />;
  }
}

/**
 * One route's page from its remote, or the unavailable fallback. It suspends until the page has loaded: a
 * navigation keeps the previous page on screen meanwhile, a first render shows the loading state.
 */
export function RemotePage({ route }: { route: PageRoute }) {
  const source = usePageSource();
  const result = usePage(route);
  const [retrying, setRetrying] = useState(false);
  const { pathname } = useLocation();

  if (!result.ok) {
    return (
      <RemoteUnavailable
        retrying={retrying}
        onRetry={() => {
          setRetrying(true);
          void source.retry(route).finally(() => setRetrying(false));
        }}
      />
    );
  }
  const { Page } = result;
  return (
    <RemotePageBoundary key={pathname} remote={route.remote}>
      <Page />
    </RemotePageBoundary>
  );
}
