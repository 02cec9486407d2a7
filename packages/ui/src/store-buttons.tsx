import type { ReactNode } from 'react';
import { goalPing } from '@gift/contracts/field-data';
import styles from './store-buttons.module.css';
import { ExternalLink } from './external-link.tsx';

/** An icon's frame, and its outline (filled once hovered or focused). */
const IconFrame = ({ children }: { children: ReactNode }) => (
  <svg width="26" height="26" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
    {children}
  </svg>
);
const paint = (filled: boolean) => ({ fill: filled ? 'currentColor' : 'none', stroke: 'currentColor' });

interface StoreLinks {
  appStore: string;
  playStore: string;
}

const AppleIcon = ({ filled }: { filled: boolean }) => (
  <IconFrame>
    <path
      d="M16.4 12.6c0-2.4 2-3.6 2.1-3.7-1.2-1.7-3-1.9-3.6-2-1.5-.2-3 .9-3.8.9-.8 0-2-.9-3.3-.9-1.7 0-3.3 1-4.2 2.6-1.8 3.1-.5 7.7 1.3 10.2.9 1.2 1.9 2.6 3.2 2.6 1.3-.1 1.8-.8 3.3-.8s2 .8 3.3.8c1.4 0 2.3-1.3 3.1-2.5 1-1.4 1.4-2.8 1.4-2.9 0 0-2.8-1.1-2.8-4.3zM14 5.3c.7-.9 1.2-2 1-3.2-1 0-2.3.7-3 1.6-.7.8-1.2 2-1.1 3.1 1.2.1 2.3-.6 3.1-1.5z"
      {...paint(filled)}
      strokeWidth="1.3"
    />
  </IconFrame>
);

const PlayIcon = ({ filled }: { filled: boolean }) => (
  <IconFrame>
    <path
      d="M4 2.8v18.4c0 .6.7 1 1.2.7l15.6-9.2c.5-.3.5-1.1 0-1.4L5.2 2.1C4.7 1.8 4 2.2 4 2.8z"
      {...paint(filled)}
      strokeWidth="1.6"
      strokeLinejoin="round"
    />
    <path d="M4.5 2.6l11 11.4M4.5 21.4l11-11.4" stroke="currentColor" strokeWidth="1.3" fill="none" />
  </IconFrame>
);

function StoreButton({
  href,
  small,
  large,
  icon,
}: {
  href: string;
  small: string;
  large: string;
  icon: (filled: boolean) => ReactNode;
}) {
  return (
    <ExternalLink className={styles.button} href={href} ping={goalPing('store-click')}>
      <span className={styles.iconRest}>{icon(false)}</span>
      <span className={styles.iconHover}>{icon(true)}</span>
      <span>
        <span className={styles.small}>{small}</span>
        <span className={styles.large}>{large}</span>
      </span>
    </ExternalLink>
  );
}

/** App Store and Google Play buttons; their icons fill in on hover and on keyboard focus. */
export function StoreButtons({
  links,
  centered,
  inverse,
}: {
  links: StoreLinks;
  centered?: boolean;
  inverse?: boolean;
}) {
  const classes = [styles.buttons, centered && styles.centered, inverse && styles.inverse].filter(Boolean).join(' ');
  return (
    <div className={classes}>
      <StoreButton
        href={links.appStore}
        small="Download on the"
        large="App Store"
        icon={(filled) => <AppleIcon filled={filled} />}
      />
      <StoreButton
        href={links.playStore}
        small="Get it on"
        large="Google Play"
        icon={(filled) => <PlayIcon filled={filled} />}
      />
    </div>
  );
}
