import { describe, expect, it } from 'vitest';
import { contentFromText, renderEmail, textOf } from './branded-email.tsx';
import { emailSamples } from './email-samples.ts';

const hrefs = (html: string) =>
  [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!.replaceAll('&amp;', '&'));

describe.each(Object.entries(emailSamples))('the %s email', (_name, content) => {
  it('has a branded HTML part with one button whose link the text part carries too', () => {
    const { html, text } = renderEmail(content);
    expect(html).toMatch(/^<!DOCTYPE html/);
    expect(hrefs(html)).toEqual([content.action.href]);
    expect(html).toContain(`>${content.action.label}<`);
    expect(text).toContain(`\n${content.action.href}\n`);
  });

  it('names the reference (and the deadline, where there is one) in both parts', () => {
    const { html, text } = renderEmail(content);
    for (const fact of content.facts) {
      expect(text).toContain(`${fact.label}: ${fact.value}`);
      expect(html).toContain(fact.value);
    }
    expect(content.facts[0]).toEqual({ label: 'Reference', value: 'DEL-7K2M-9QXA' });
  });

  it('breaks the text part only between paragraphs, never mid-sentence', () => {
    const { text } = renderEmail(content);
    expect(text).not.toMatch(/[a-z,]\n[a-z]/);
  });

  it('comes back whole from its text part, which is all the outbox keeps', () => {
    expect(contentFromText(content.subject, textOf(content))).toEqual(content);
  });

  it('keeps its colours readable when the mail app is in dark mode', () => {
    const { html } = renderEmail(content);
    expect(html).toContain('name="color-scheme" content="light dark"');
    expect(html).toContain('@media (prefers-color-scheme: dark)');
  });
});

it('the confirmation email tells when its link stops working, in UTC', () => {
  const { text } = renderEmail(emailSamples.confirmation!);
  expect(text).toContain('The link works once, until: 26 November 2026, 16:05 UTC');
});

it('takes the last link block as the button, whatever an operator typed in a reason', () => {
  const content = { ...emailSamples.rejected!, paragraphs: ['Why: see:\nhttps://elsewhere.example', 'More.'] };
  expect(contentFromText(content.subject, textOf(content)).action).toEqual(emailSamples.rejected!.action);
});

it('fills each email with its own values, escaped as React escapes them', () => {
  const base = emailSamples.rejected!;
  const first = renderEmail({ ...base, paragraphs: ['One <b>&', 'Why: "quoted" it\'s', 'Three.'] }).html;
  const second = renderEmail({ ...base, paragraphs: ['Four.', 'Five.', 'Six.'] }).html;
  expect(first).toContain('One &lt;b&gt;&amp;');
  expect(first).toContain('Why: &quot;quoted&quot; it&#x27;s');
  expect(second).toContain('Four.');
  expect(second).not.toContain('One &lt;b&gt;');
  expect(second).not.toMatch(/\uE000/);
});
