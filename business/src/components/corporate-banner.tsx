import { Link } from '@gift/router';
import { Banner, callToActionClass } from '@gift/ui';
import { corporateBanner } from '../content/shared.content.ts';

/** The foot-of-page banner; it leads back to the top of /business, also from /business itself. */
export function CorporateBanner() {
  return (
    <Banner title={corporateBanner.title} text={corporateBanner.text}>
      <Link className={callToActionClass.inverse} to={corporateBanner.to}>
        {corporateBanner.cta}
      </Link>
    </Banner>
  );
}
