// The release checks drive the same browser the same way: one definition, in the site server's package.
export { chromiumArgs, chromiumPath } from 'site-server/chromium';
