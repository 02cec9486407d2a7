import { site } from '@gift/content';

/**
 * What an email says, once: both its parts are made from it, so the button and the text carry the same link. The
 * heading is the subject without its reference; the first paragraph is the line an inbox shows beside the subject.
 */
export interface EmailContent {
  subject: string;
  paragraphs: string[];
  action: { label: string; href: string };
  /** The reference and, where there is one, the deadline, set apart under the button. */
  facts: { label: string; value: string }[];
  /** What follows the button: what happens if the reader does nothing, where to turn. */
  after: string[];
}

export const headingOf = (subject: string) => subject.replace(/\s*\([^)]*\)$/, '');

/** Paragraphs on one line each (mail apps wrap them to the reader's screen), the link on a line of its own. */
export function textOf(content: EmailContent): string {
  return [
    'Hello,',
    ...content.paragraphs,
    `${content.action.label}:\n${content.action.href}`,
    content.facts.map((fact) => `${fact.label}: ${fact.value}`).join('\n'),
    ...content.after,
    `${site.brand}`,
  ].join('\n\n');
}

/**
 * The content back from the plain-text part (the inverse of textOf): the outbox keeps the text alone and makes the
 * HTML part from it when it sends, so a new request writes no more than the text (what a stranger could time).
 */
export function contentFromText(subject: string, text: string): EmailContent {
  const blocks = text.split('\n\n');
  const actionAt = blocks.findLastIndex((block) => /^[^\n]+:\nhttps?:\/\/\S+$/.test(block));
  if (blocks[0] !== 'Hello,' || actionAt < 0) throw new Error(`The text of "${subject}" is not one textOf made`);
  const [label, href] = blocks[actionAt]!.split(':\n') as [string, string];
  const facts = blocks[actionAt + 1]!.split('\n').map((line) => {
    const at = line.indexOf(': ');
    return { label: line.slice(0, at), value: line.slice(at + 2) };
  });
  return {
    subject,
    paragraphs: blocks.slice(1, actionAt),
    action: { label, href },
    facts,
    after: blocks.slice(actionAt + 2, -1),
  };
}
