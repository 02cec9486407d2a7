import { site } from '@gift/content';
import { goalPing } from '@gift/contracts/field-data';
import { ExternalLink, HeaderBar, headerItemClass } from '@gift/ui';
import { vendor } from '../content/vendor.content.ts';

/** The vendor page's own header: the business portal's login and sign-up, each in a new tab. */
export function VendorHeader() {
  return (
    <HeaderBar menuLabel="Vendor" menuId="vendor-menu">
      <li>
        <ExternalLink className={headerItemClass.link} href={site.portal.login} ping={goalPing('portal-click')}>
          {vendor.header.login}
        </ExternalLink>
      </li>
      <li>
        <ExternalLink className={headerItemClass.action} href={site.portal.register} ping={goalPing('portal-click')}>
          {vendor.header.signup}
        </ExternalLink>
      </li>
    </HeaderBar>
  );
}
