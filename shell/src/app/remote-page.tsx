import { Component, type ErrorInfo, type ReactNode } from 'react';
import { useLoaderData, useLocation, useRevalidator } from 'react-router';
import type { PageRoute } from '@gift/content';
import { reloadPage, type PageLoad } from './remotes.ts';
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

/** One route's page from its remote (loaded by the route's loader), or the unavailable fallback. */
export function RemotePage({ route }: { route: PageRoute }) {
  const result = useLoaderData() as PageLoad;
  const revalidator = useRevalidator();
  const { pathname } = useLocation();

  if (!result.ok) {
    return (
      <RemoteUnavailable
        retrying={revalidator.state === 'loading'}
        onRetry={() => {
          reloadPage(route.remote, route.module);
          void revalidator.revalidate();
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
