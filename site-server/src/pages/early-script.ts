import { createHash } from 'node:crypto';
import { brandFontKey } from '@gift/federation';

/**
 * The one script in a page's head, run before anything paints: what the page's markup does natively it leaves to
 * the browser; it only closes an open menu popover when one of its items is pressed, which HTML cannot do for a
 * link to a section of the same page (once hydrated, the header does the same), and when focus moves out of it (Tab
 * from its last item; a popover that stayed open would cover the page the focus went to). And a browser that has the brand
 * font from an earlier page uses it from the first paint (tokens.css, shell/src/app/brand-font.ts).
 */
export const earlyScript =
  "document.addEventListener('click',function(e){var m=e.target.closest&&e.target.closest('[popover]');" +
  "if(m&&e.target.closest('a')&&m.matches(':popover-open'))m.hidePopover()});" +
  "document.addEventListener('focusin',function(e){var t=e.target;document.querySelectorAll('[popover]').forEach(" +
  "function(m){if(m.matches(':popover-open')&&!m.contains(t)&&t.popoverTargetElement!==m)m.hidePopover()})});" +
  `try{if(localStorage.getItem('${brandFontKey}'))document.documentElement.dataset.font=''}catch(e){}`;

/** The Content-Security-Policy source that allows exactly one inline script and no other. */
const inlineScriptSource = (script: string) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`;

export const earlyScriptSource = inlineScriptSource(earlyScript);

export const earlyScriptTag = `<script>${earlyScript}</script>`;

/**
 * Starts the page's scripts once its content has painted (the script is the body's last element, so the frame it
 * waits for is one with the page in it): the modulepreload links before it have asked for every script the page runs
 * at start as the document arrived, all at once, so that no round trip waits for another; this only evaluates them.
 * Waiting for `load` as well would leave the page unhydrated while its images arrive. A hidden tab, which does not
 * paint, starts them anyway.
 *
 * `data-first` names the shared chunks (React, the shared modules' module) that the entry's first import would
 * otherwise evaluate all in one task: each is evaluated in a task of its own, in order, and the entry (`data-entry`)
 * after them, so that a tap between two is answered (issue 60). Between two, `scheduler.yield()` where the browser
 * has it: input goes first, and the page's other tasks (images, timers) do not get ahead of hydration; a timer
 * elsewhere. One that fails is passed over: the entry then imports it and says why.
 */
export const startScript =
  'var d=document.currentScript.dataset,go=function(){if(go.done)return;go.done=1;' +
  "var q=(d.first||'').split(' '),next=function(){var h=q.shift();if(h)return import(h).then(later,later);" +
  "var m=document.createElement('script');m.type='module';m.crossOrigin='';m.src=d.entry;document.head.appendChild(m)}," +
  'later=function(){var y=window.scheduler&&scheduler.yield;y?scheduler.yield().then(next):setTimeout(next,0)};next()};' +
  'requestAnimationFrame(function(){setTimeout(go,0)});setTimeout(go,3000)';

export const startScriptSource = inlineScriptSource(startScript);
