import type { Locator } from '@playwright/test';

export interface AccessibleNode {
  role: string;
  name: string;
  expanded?: boolean;
  checked?: string;
  focused?: boolean;
}

/**
 * What Chromium tells a screen reader about an element: its role, name and states, from the browser's own
 * accessibility tree. States the browser derives itself (a popover's invoker, a summary) are in it; Playwright's
 * role selectors only read ARIA attributes.
 */
export async function accessibleNode(target: Locator): Promise<AccessibleNode> {
  const page = target.page();
  const marker = `ax-${Math.random().toString(36).slice(2)}`;
  await target.evaluate((element, name) => element.setAttribute('data-ax-probe', name), marker);
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeId } = await cdp.send('DOM.querySelector', {
      nodeId: root.nodeId,
      selector: `[data-ax-probe="${marker}"]`,
    });
    const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
    const node = nodes.find((candidate) => !candidate.ignored) ?? nodes[0]!;
    const property = (name: string) => node.properties?.find((one) => one.name === name)?.value.value;
    return {
      role: String(node.role?.value ?? ''),
      name: String(node.name?.value ?? ''),
      expanded: property('expanded') as boolean | undefined,
      checked: property('checked') as string | undefined,
      focused: property('focused') as boolean | undefined,
    };
  } finally {
    await cdp.detach();
    await target.evaluate((element) => element.removeAttribute('data-ax-probe')).catch(() => undefined);
  }
}
