import type { ButtonHTMLAttributes } from 'react';
import styles from './button.module.css';

type Variant = 'primary' | 'secondary';

/** The button look, for what must be another element and look like one (a disclosure's summary). */
export const buttonClassName = (variant: Variant = 'primary', className?: string) =>
  [styles.button, styles[variant], className].filter(Boolean).join(' ');

/** The site's one button: `primary` for the action a panel is for, `secondary` for the ways around it. */
export function Button({
  variant = 'primary',
  className,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant }) {
  return <button {...props} className={buttonClassName(variant, className)} />;
}
