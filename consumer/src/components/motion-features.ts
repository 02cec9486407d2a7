import { domMax } from 'framer-motion';

/**
 * The landing page's animation code, in its own chunk that `PageMotion` loads when it is first needed. The full
 * set, because the feature panel's resize (spec section 9) is a layout animation.
 */
export default domMax;
