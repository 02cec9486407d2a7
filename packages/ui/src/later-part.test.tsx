import { act, Suspense, useState } from 'react';
import { createRoot, hydrateRoot, type Root } from 'react-dom/client';
import { prerender } from 'react-dom/static';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { laterPart } from './later-part.tsx';

function Greeting({ name }: { name: string }) {
  const [presses, setPresses] = useState(0);
  return (
    <p>
      Hello {name}
      <button type="button" onClick={() => setPresses(presses + 1)}>
        Pressed {presses}
      </button>
    </p>
  );
}

/** A part whose code arrives when the test says so. */
function heldPart() {
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const Part = laterPart<{ name: string }>(() => arrived.then(() => ({ default: Greeting })));
  return { Part, arrive };
}

function Page({
  Part,
  name,
  rename,
}: {
  Part: ReturnType<typeof heldPart>['Part'];
  name: string;
  rename?: () => void;
}) {
  return (
    <main>
      <h1>Page</h1>
      <button type="button" onClick={rename}>
        Rename
      </button>
      <Part name={name} />
    </main>
  );
}

/**
 * The page as the server sends it, rendered with a copy of laterPart of its own (as the server's is). A part made
 * once the page has hydrated asks for its code at once, as on the server, and the server's render waits for it.
 */
async function serverHtml(name: string) {
  vi.resetModules();
  const server = await import('./later-part.tsx');
  document.documentElement.dataset.ready = 'true';
  const Rendered = server.laterPart<{ name: string }>(() => Promise.resolve({ default: Greeting }));
  delete document.documentElement.dataset.ready;
  const { prelude } = await prerender(<Page Part={Rendered} name={name} />);
  return new Response(prelude).text();
}

beforeAll(() => {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
});

let root: Root | undefined;
afterEach(() => {
  act(() => root?.unmount());
  root = undefined;
  document.body.innerHTML = '';
  delete document.documentElement.dataset.ready;
});

describe('laterPart', () => {
  it('is rendered whole by the server, inside its element', async () => {
    const html = await serverHtml('Ada');
    const container = document.createElement('div');
    container.innerHTML = html;
    const part = container.querySelector('[data-later-part]');
    expect(part?.textContent).toBe('Hello AdaPressed 0');
  });

  it('rendered in the browser without server HTML, asks for its code at once and shows with its page', async () => {
    const container = document.createElement('div');
    document.body.append(container);
    const { Part, arrive } = heldPart();
    await act(async () => {
      root = createRoot(container);
      root.render(
        <Suspense fallback={<p>Loading</p>}>
          <Page Part={Part} name="Ada" />
        </Suspense>,
      );
    });
    // Not the page without its part (the rest would move when it came): the page waits for it.
    expect(container.textContent).toBe('Loading');
    await act(async () => arrive());
    expect(container.querySelector('h1')?.textContent).toBe('Page');
    expect(container.querySelector('[data-later-part]')?.textContent).toBe('Hello AdaPressed 0');
  });

  it('keeps the server HTML, whatever its page does, until its code arrives, then hydrates it in place', async () => {
    const container = document.createElement('div');
    container.innerHTML = await serverHtml('Ada');
    document.body.append(container);
    const serverButton = container.querySelector<HTMLButtonElement>('p button')!;
    const { Part, arrive } = heldPart();
    function App() {
      const [name, setName] = useState('Ada');
      return <Page Part={Part} name={name} rename={() => setName('Grace')} />;
    }
    await act(async () => {
      root = hydrateRoot(container, <App />);
    });
    // The page has hydrated; the part waits for its code, shown as the server drew it.
    const part = container.querySelector('[data-later-part]')!;
    expect(part.textContent).toBe('Hello AdaPressed 0');
    // A change of its props before then: nothing is drawn again, nothing is blanked.
    act(() => container.querySelector<HTMLButtonElement>('main > button')!.click());
    expect(part.textContent).toBe('Hello AdaPressed 0');
    expect(serverButton.isConnected).toBe(true);

    // The visitor moves: the code is asked for; when it arrives, the part hydrates with the props of now.
    await act(async () => {
      window.dispatchEvent(new Event('scroll'));
      arrive();
    });
    await act(async () => {});
    expect(part.getAttribute('data-later-part-state')).toBe('hydrated');
    expect(part.textContent).toBe('Hello GracePressed 0');
    expect(container.querySelector('p button')).toBe(serverButton);
    act(() => serverButton.click());
    expect(serverButton.textContent).toBe('Pressed 1');
  });
});
