import { describe, expect, it } from 'vitest';
import { renderEmail } from './branded-email.tsx';
import { emailSamples } from './email-samples.ts';

const hrefs = (html: string) =>
  [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));

describe.each(Object.entries(emailSamples))('the %s email', (_name, content) => {
  it('has a branded HTML part with one button whose link the text part carries too', async () => {
    const { html, text } = await renderEmail(content);
    expect(html).toMatch(/^<!DOCTYPE html/);
    expect(hrefs(html)).toEqual([content.action.href]);
    expect(html).toContain(`>${content.action.label}<`);
    expect(text).toContain(`\n${content.action.href}\n`);
  });

  it('names the reference (and the deadline, where there is one) in both parts', async () => {
    const { html, text } = await renderEmail(content);
    for (const fact of content.facts) {
      expect(text).toContain(`${fact.label}: ${fact.value}`);
      expect(html).toContain(fact.value);
    }
    expect(content.facts[0]).toEqual({ label: 'Reference', value: 'DEL-7K2M-9QXA' });
  });

  it('breaks the text part only between paragraphs, never mid-sentence', async () => {
    const { text } = await renderEmail(content);
    expect(text).not.toMatch(/[a-z,]\n[a-z]/);
  });

  it('keeps its colours readable when the mail app is in dark mode', async () => {
    const { html } = await renderEmail(content);
    expect(html).toContain('name="color-scheme" content="light dark"');
    expect(html).toContain('@media (prefers-color-scheme: dark)');
  });
});

it('the confirmation email tells when its link stops working, in UTC', async () => {
  const { text } = await renderEmail(emailSamples.confirmation!);
  expect(text).toContain('The link works once, until: 26 November 2026, 16:05 UTC');
});
