import { useRef } from 'react';
import { sections } from '@gift/content';
import { Section, useScrollSpy } from '@gift/ui';
import { landing } from '../content/landing.content.ts';
import styles from './how-it-works.module.css';

/** The three steps; the one in the middle of the screen is highlighted as the visitor scrolls. */
export function HowItWorks() {
  const { title, intro, steps } = landing.howItWorks;
  const stepRefs = useRef<(HTMLLIElement | null)[]>([]);
  const active = useScrollSpy(stepRefs);
  return (
    <Section id={sections.howItWorks} title={title} intro={intro}>
      <ol className={styles.steps}>
        {steps.map((step, index) => (
          <li
            key={step.id}
            ref={(element) => {
              stepRefs.current[index] = element;
            }}
            className={styles.step}
            data-active={index === active}
            aria-current={index === active ? 'step' : undefined}
          >
            <span className={styles.number} aria-hidden="true">
              {index + 1}
            </span>
            <div>
              <h3>
                <span className="visually-hidden">Step {index + 1}: </span>
                {step.title}
              </h3>
              <p>{step.body}</p>
            </div>
          </li>
        ))}
      </ol>
    </Section>
  );
}
