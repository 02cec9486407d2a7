/** @jsxRuntime automatic @jsxImportSource react */
// The runtime is named above: tsx compiles this file with the settings of the package that runs it (the site server).
import { Body } from '@react-email/body';
import { Button } from '@react-email/button';
import { Container } from '@react-email/container';
import { Head } from '@react-email/head';
import { Heading } from '@react-email/heading';
import { Html } from '@react-email/html';
import { Preview } from '@react-email/preview';
import { Section } from '@react-email/section';
import { Text } from '@react-email/text';
import { renderToStaticMarkup } from 'react-dom/server';
import { site } from '@gift/content';
import { headingOf, textOf, type EmailContent } from './email-content.ts';

export { contentFromText, textOf, type EmailContent } from './email-content.ts';

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const palette = {
  brand: '#b3124e',
  ink: '#1d1726',
  muted: '#544a5e',
  canvas: '#fff8f3',
  line: '#e7dde3',
};
// The site's own face where the reader's mail app loads web fonts; a close system face everywhere else.
const fontFamily = "Inter, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";

// Mail apps that honour `prefers-color-scheme` darken the page; the card keeps readable contrast in both schemes.
const darkMode = `
  :root { color-scheme: light dark; supported-color-schemes: light dark; }
  @media (prefers-color-scheme: dark) {
    .page, .page > table > tbody > tr > td { background: #17121d !important; }
    .card { background: #241c2c !important; border-color: #3a2f44 !important; }
    .ink { color: #f4eef6 !important; }
    .muted { color: #cfc3d6 !important; }
    .brand { color: #ff8db5 !important; }
  }
`;

const bodyText = { margin: '0 0 16px', fontSize: 16, lineHeight: '24px', color: palette.ink };
const smallText = { fontSize: 14, lineHeight: '20px', color: palette.muted };

export function BrandedEmail({
  content,
  heading = headingOf(content.subject),
}: {
  content: EmailContent;
  heading?: string;
}) {
  return (
    <Html lang="en">
      <Head>
        <meta name="color-scheme" content="light dark" />
        <meta name="supported-color-schemes" content="light dark" />
        <style>{darkMode}</style>
      </Head>
      <Preview>{content.paragraphs[0] ?? ''}</Preview>
      <Body className="page" style={{ margin: 0, padding: '24px 0', background: palette.canvas, fontFamily }}>
        <Container style={{ maxWidth: 560, width: '100%', padding: '0 12px' }}>
          <Text className="brand" style={{ margin: '0 0 16px', fontSize: 20, fontWeight: 700, color: palette.brand }}>
            {site.brand}
          </Text>
          <Section
            className="card"
            style={{ background: '#ffffff', border: `1px solid ${palette.line}`, borderRadius: 16, padding: '24px' }}
          >
            <Heading
              as="h1"
              className="ink"
              style={{ margin: '0 0 16px', fontSize: 24, lineHeight: '32px', color: palette.ink }}
            >
              {heading}
            </Heading>
            {['Hello,', ...content.paragraphs].map((paragraph) => (
              <Text key={paragraph} className="ink" style={bodyText}>
                {paragraph}
              </Text>
            ))}
            <Section style={{ margin: '24px 0' }}>
              <Button
                href={content.action.href}
                style={{
                  display: 'inline-block',
                  background: palette.brand,
                  color: '#ffffff',
                  fontSize: 16,
                  fontWeight: 600,
                  lineHeight: '24px',
                  padding: '12px 24px',
                  borderRadius: 999,
                  textDecoration: 'none',
                }}
              >
                {content.action.label}
              </Button>
            </Section>
            {content.facts.map((fact) => (
              <Text key={fact.label} className="muted" style={{ ...smallText, margin: '0 0 4px' }}>
                {fact.label}: <strong className="ink">{fact.value}</strong>
              </Text>
            ))}
            {content.after.map((paragraph) => (
              <Text key={paragraph} className="muted" style={{ ...smallText, margin: '16px 0 0' }}>
                {paragraph}
              </Text>
            ))}
          </Section>
          <Text
            className="muted"
            style={{ margin: '16px 0 0', fontSize: 12, lineHeight: '18px', color: palette.muted }}
          >
            {site.brand} · {site.supportEmail}
          </Text>
        </Container>
      </Body>
    </Html>
  );
}

// The doctype mail apps expect, as React Email's own render writes it.
const doctype =
  '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">';

/** Each shape of email (how many paragraphs, facts and closing lines), rendered once with a slot for every text. */
const skeletons = new Map<string, string>();
const slotPattern = /\uE000(\d+)\uE001/g;
// As React escapes text and attribute values.
const escaped = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;' })[char]!);

/**
 * The subject, the plain-text part and the HTML part of one email. React renders each shape of email once, with
 * placeholders, and each email fills them in: rendering took 2-4 ms of the event loop per email, and a batch of sends
 * then held up the requests being answered meanwhile, the ones that wait on the database most (a new deletion
 * request) more than others (routes.test.ts; React Email's streaming render, which yields between chunks, was worse).
 */
export function renderEmail(content: EmailContent): RenderedEmail {
  const values: string[] = [];
  const hold = (value: string) => `\uE000${values.push(value) - 1}\uE001`;
  const slotted: EmailContent = {
    subject: '',
    paragraphs: content.paragraphs.map(hold),
    action: { label: hold(content.action.label), href: hold(content.action.href) },
    facts: content.facts.map((fact) => ({ label: hold(fact.label), value: hold(fact.value) })),
    after: content.after.map(hold),
  };
  const heading = hold(headingOf(content.subject));
  const shape = `${content.paragraphs.length}.${content.facts.length}.${content.after.length}`;
  let skeleton = skeletons.get(shape);
  if (skeleton === undefined) {
    skeleton = `${doctype}${renderToStaticMarkup(<BrandedEmail content={slotted} heading={heading} />)}`;
    skeletons.set(shape, skeleton);
  }
  return {
    subject: content.subject,
    text: textOf(content),
    html: skeleton.replace(slotPattern, (_, index: string) => escaped(values[Number(index)]!)),
  };
}
