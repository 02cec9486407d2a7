import { createHash } from 'node:crypto';
import { brandFontKey } from '@gift/federation';

/**
 * The one script in a page's head, run before anything paints: what the page's markup does natively it leaves to
 * the browser; it only closes an open menu popover when one of its items is pressed, which HTML cannot do for a
 * link to a section of the same page (once hydrated, the header does the same). And a browser that has the brand
 * font from an earlier page uses it from the first paint (tokens.css, shell/src/app/brand-font.ts).
 */
export const earlyScript =
  "document.addEventListener('click',function(e){var m=e.target.closest&&e.target.closest('[popover]');" +
  "if(m&&e.target.closest('a')&&m.matches(':popover-open'))m.hidePopover()});" +
  `try{if(localStorage.getItem('${brandFontKey}'))document.documentElement.dataset.font=''}catch(e){}`;

/** The Content-Security-Policy source that allows exactly one inline script and no other. */
const inlineScriptSource = (script: string) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`;

export const earlyScriptSource = inlineScriptSource(earlyScript);

export const earlyScriptTag = `<script>${earlyScript}</script>`;

/**
 * Starts the page's scripts once it has painted: `data-entry` is the shell's entry, `data-preload` every chunk it
 * and the page run at start (`data-integrity`, beside it, the Subresource Integrity of each one a release recorded,
 * `-` for none), all requested at once so that no round trip waits for another. Painting first keeps
 * them off the first paint's critical path (the page is whole and usable without them); waiting for `load` as well
 * would leave the page unhydrated while its images arrive. A hidden tab, which does not paint, starts them anyway.
 * The links go in as one fragment: one by one, each insertion cost the main thread a few milliseconds on a phone.
 *
 * `data-first` names the shared chunks (React, the federation runtime) that the entry's first import would otherwise
 * evaluate all in one task, with the federation runtime's start: each is evaluated in a task of its own, in order,
 * and the entry after them, so that a tap between two is answered (issue 60). Between two, `scheduler.yield()` where
 * the browser has it: input goes first, and the page's other tasks (images, timers) do not get ahead of hydration;
 * a timer elsewhere. One that fails is passed over: the
 * entry then imports it and says why.
 */
export const startScript =
  'var s=document.currentScript,d=s.dataset,go=function(){if(go.done)return;go.done=1;' +
  "var f=document.createDocumentFragment(),g=(d.integrity||'').split(' ');" +
  "(d.entry+' '+d.preload).split(' ').forEach(function(h,i){if(!h)return;" +
  "var l=document.createElement('link');l.rel='modulepreload';l.crossOrigin='';l.href=h;" +
  "if(g[i-1]&&g[i-1]!='-')l.integrity=g[i-1];f.appendChild(l)});document.head.appendChild(f);" +
  "var q=(d.first||'').split(' '),next=function(){var h=q.shift();if(h)return import(h).then(later,later);" +
  "var m=document.createElement('script');m.type='module';m.crossOrigin='';m.src=d.entry;document.head.appendChild(m)}," +
  'later=function(){var y=window.scheduler&&scheduler.yield;y?scheduler.yield().then(next):setTimeout(next,0)};next()};' +
  'requestAnimationFrame(function(){setTimeout(go,0)});setTimeout(go,3000)';

export const startScriptSource = inlineScriptSource(startScript);
