import { createHash } from 'node:crypto';

/**
 * The one script in a page's head, run before anything paints: what the page's markup does natively it leaves to
 * the browser; it only closes an open menu popover when one of its items is pressed, which HTML cannot do for a
 * link to a section of the same page. Once hydrated, the header does the same.
 */
export const earlyScript =
  "document.addEventListener('click',function(e){var m=e.target.closest&&e.target.closest('[popover]');" +
  "if(m&&e.target.closest('a')&&m.matches(':popover-open'))m.hidePopover()})";

/** The Content-Security-Policy source that allows exactly this inline script and no other. */
export const earlyScriptSource = `'sha256-${createHash('sha256').update(earlyScript).digest('base64')}'`;

export const earlyScriptTag = `<script>${earlyScript}</script>`;
