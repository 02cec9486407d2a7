import { useEffect, useRef, useState } from 'react';
import { sections } from '@gift/content';
import { Icon, Section, usePrefersReducedMotion, useScrollSpy } from '@gift/ui';
import { landing } from '../content/landing.content.ts';
import { ResizingPanel } from './page-motion.tsx';

import styles from './features.module.css';

/** Each feature's place in the scroll track, which its option in the list links to. */
const placeOf = (id: string) => `feature-${id}`;

/**
 * The five features with a selector list. The section holds still while the visitor scrolls through it,
 * and the feature for the current scroll position is shown; choosing one in the list shows it too. The options
 * are links to each feature's place, so one chosen before hydration scrolls there natively and the feature shows
 * as soon as the scroll spy runs; once hydrated, a choice shows at once.
 */
export function Features() {
  const { title, intro, items } = landing.features;
  const triggerRefs = useRef<(HTMLDivElement | null)[]>([]);
  const listRef = useRef<HTMLUListElement>(null);
  const scrolledTo = useScrollSpy(triggerRefs);
  // A choice from the list holds until scrolling moves on to another feature.
  const [chosen, setChosen] = useState<{ index: number; whileScrolledTo: number } | null>(null);
  const reducedMotion = usePrefersReducedMotion();
  const active = chosen?.whileScrolledTo === scrolledTo ? chosen.index : scrolledTo;
  const feature = items[active] ?? items[0]!;

  // On small screens the list is a row of chips: keep the active one in view, from the first change on (at
  // hydration the visitor may be scrolling the row to press a chip).
  const shownActive = useRef(active);
  useEffect(() => {
    if (shownActive.current === active) return;
    shownActive.current = active;
    const list = listRef.current;
    const option = list?.querySelectorAll('a')[active];
    if (list && option && list.scrollWidth > list.clientWidth) list.scrollTo({ left: option.offsetLeft - 16 });
  }, [active]);

  const choose = (index: number) => {
    setChosen({ index, whileScrolledTo: scrolledTo });
    triggerRefs.current[index]?.scrollIntoView({ block: 'center', behavior: reducedMotion ? 'auto' : 'smooth' });
  };

  return (
    <Section id={sections.features} title={title} intro={intro}>
      <div className={styles.track}>
        <div className={styles.sticky}>
          <ul ref={listRef} className={styles.list} aria-label="Choose a feature">
            {items.map((item, index) => (
              <li key={item.id}>
                <a
                  href={`#${placeOf(item.id)}`}
                  className={styles.option}
                  aria-current={index === active}
                  aria-controls="feature-panel"
                  onClick={(event) => {
                    event.preventDefault();
                    choose(index);
                  }}
                >
                  <Icon name={item.icon} size={22} />
                  {item.title}
                </a>
              </li>
            ))}
          </ul>
          <div className={styles.stage}>
            <ResizingPanel id="feature-panel" className={styles.panel} contentKey={feature.id}>
              <div className={styles.panelIcon}>
                <Icon name={feature.icon} size={32} />
              </div>
              <h3>{feature.title}</h3>
              <p>{feature.description}</p>
            </ResizingPanel>
            {/* The app's screen where the feature happens: all five in place, the active one shown, so that a change
                never waits for a picture (none is asked for on a phone, where there is no room for them). */}
            <div className={styles.screens}>
              {items.map((item, index) => (
                <img
                  key={item.id}
                  src={item.screen}
                  alt=""
                  width={300}
                  height={560}
                  loading="lazy"
                  data-active={index === active}
                />
              ))}
            </div>
          </div>
        </div>
        <div className={styles.triggers} aria-hidden="true">
          {items.map((item, index) => (
            <div
              key={item.id}
              id={placeOf(item.id)}
              className={styles.trigger}
              ref={(element) => {
                triggerRefs.current[index] = element;
              }}
            />
          ))}
        </div>
      </div>
    </Section>
  );
}
