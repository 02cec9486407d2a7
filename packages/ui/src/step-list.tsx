import { useRef } from 'react';
import { useScrollSpy } from './use-scroll-spy.ts';
import styles from './step-list.module.css';

export interface Step {
  id: string;
  title: string;
  body: string;
}

/** Numbered steps; the one in the middle of the screen is highlighted as the visitor scrolls. */
export function StepList({ steps }: { steps: Step[] }) {
  const stepRefs = useRef<(HTMLLIElement | null)[]>([]);
  const active = useScrollSpy(stepRefs);
  return (
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
  );
}
