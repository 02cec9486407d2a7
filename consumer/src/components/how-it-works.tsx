import { sections } from '@gift/content';
import { Section, StepList } from '@gift/ui';
import { landing } from '../content/landing.content.ts';

export function HowItWorks() {
  const { title, intro, steps } = landing.howItWorks;
  return (
    <Section id={sections.howItWorks} title={title} intro={intro}>
      <StepList steps={steps} />
    </Section>
  );
}
