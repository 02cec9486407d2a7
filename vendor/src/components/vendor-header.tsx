import { site } from '@gift/content';
import { HeaderBar, headerItemClass } from '@gift/ui';
import { vendor } from '../content/vendor.content.ts';

const newTab = { target: '_blank', rel: 'noopener noreferrer' } as const;

/** The vendor page's own header: the business portal's login and sign-up, each in a new tab. */
export function VendorHeader() {
  return (
    <HeaderBar menuLabel="Vendor" menuId="vendor-menu">
      <li>
        <a className={headerItemClass.link} href={site.portal.login} {...newTab}>
          {vendor.header.login}
          <span className="visually-hidden"> (opens in a new tab)</span>
        </a>
      </li>
      <li>
        <a className={headerItemClass.action} href={site.portal.register} {...newTab}>
          {vendor.header.signup}
          <span className="visually-hidden"> (opens in a new tab)</span>
        </a>
      </li>
    </HeaderBar>
  );
}
