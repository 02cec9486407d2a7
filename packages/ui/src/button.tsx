import type { ButtonHTMLAttributes } from 'react';
import styles from './button.module.css';

type Variant = 'primary' | 'secondary' | 'danger';

/** The button look, for what must be another element and look like one (a disclosure's summary). */
export const buttonClassName = (variant: Variant = 'primary', className?: string) =>
  [styles.button, styles[variant], className].filter(Boolean).join(' ');

/**
 * The site's one button: `primary` for the action a panel is for, `secondary` for the ways around it, `danger` for an
 * action that cannot be taken back (an account's deletion): plain, square-cornered, in the error's red.
 */
export function Button({
  variant = 'primary',
  className,
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: Variant }) {
  return <button {...props} className={buttonClassName(variant, className)} />;
}
