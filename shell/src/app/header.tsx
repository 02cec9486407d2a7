import { Link } from 'react-router';
import { headerNav } from '@gift/content';
import { HeaderBar, headerItemClass } from '@gift/ui';

/** The shared header: section menu of the landing page, reachable from every page. */
export function Header() {
  return (
    <HeaderBar menuLabel="Main" menuId="site-menu">
      {headerNav.map((item) => (
        <li key={item.label}>
          <Link to={item.to} className={headerItemClass.link}>
            {item.label}
          </Link>
        </li>
      ))}
    </HeaderBar>
  );
}
