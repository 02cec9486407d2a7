/**
 * The live site for a release's checks, in a process of its own: started (by `liveSiteInOwnProcess`) after the
 * candidate's code has run in the checks' process, it has never loaded any of it. Its options come as JSON in the
 * first argument; it sends its URL to the parent and stops when the parent goes.
 */
import { startSite } from '../site.ts';

const site = await startSite(JSON.parse(process.argv[2]!));
process.send!(site.url);
process.on('disconnect', () => void site.close().finally(() => process.exit(0)));
