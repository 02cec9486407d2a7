import 'slick-carousel/slick/slick.css';
import { laterPart } from '@gift/ui';
import { Hero } from '../components/hero.tsx';

/** Everything after the hero: hydrated after it, once the page is idle or the visitor moves. */
const BelowTheFold = laterPart(() => import('../components/below-the-fold.tsx'));

export function LandingPage() {
  return (
    <>
      <Hero />
      <BelowTheFold />
    </>
  );
}

export default LandingPage;
