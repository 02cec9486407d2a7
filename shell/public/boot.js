// Starts a prerendered page's scripts once the page has loaded and painted: its content never waits for them,
// and they do not compete with it for the network. Then everything is requested at once, with no chain.
(() => {
  const boot = document.currentScript;
  const entry = boot.getAttribute('data-entry');
  const preloads = (boot.getAttribute('data-preload') ?? '').split(' ').filter(Boolean);

  const start = () => {
    for (const href of preloads) {
      const link = document.createElement('link');
      link.rel = 'modulepreload';
      link.crossOrigin = '';
      link.href = href;
      document.head.append(link);
    }
    const script = document.createElement('script');
    script.type = 'module';
    script.crossOrigin = '';
    script.src = entry;
    document.head.append(script);
  };

  const afterPaint = () => requestAnimationFrame(() => setTimeout(start, 0));

  if (document.readyState === 'complete') afterPaint();
  else window.addEventListener('load', afterPaint, { once: true });
})();
