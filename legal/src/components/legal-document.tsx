import { site } from '@gift/content';
import type { LegalDocumentContent } from '../content/legal-document.ts';
import styles from './legal-document.module.css';

export function LegalDocument({ content }: { content: LegalDocumentContent }) {
  return (
    <article className={styles.document}>
      <h1 className={styles.title}>{content.title}</h1>
      <p className={styles.updated}>Last updated: {content.lastUpdated}</p>
      <p className={styles.intro}>{content.intro}</p>
      {content.sections.map((section) => (
        <section key={section.id} id={section.id} className={styles.section} aria-labelledby={`${section.id}-heading`}>
          <h2 id={`${section.id}-heading`}>{section.heading}</h2>
          {section.paragraphs?.map((paragraph) => (
            <p key={paragraph}>{paragraph}</p>
          ))}
          {section.items && (
            <ul>
              {section.items.map((item) => (
                <li key={item}>{item}</li>
              ))}
            </ul>
          )}
        </section>
      ))}
      <section id="contact" className={styles.section} aria-labelledby="contact-heading">
        <h2 id="contact-heading">{content.contact.heading}</h2>
        <p>
          {content.contact.text} <a href={`mailto:${site.supportEmail}`}>{site.supportEmail}</a>.
        </p>
      </section>
    </article>
  );
}
