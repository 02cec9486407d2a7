import { useEffect, useState } from 'react';

/** The least a page can be: a heading and a button that counts, with the same `hydrated` mark and
 * `data-ready` as the site's shell. */
export function App() {
  const [count, setCount] = useState(0);
  useEffect(() => {
    document.documentElement.dataset.ready = 'true';
    performance.mark('hydrated');
  }, []);
  return (
    <main>
      <h1>React floor</h1>
      <button type="button" onClick={() => setCount(count + 1)}>
        Pressed {count} times
      </button>
    </main>
  );
}
