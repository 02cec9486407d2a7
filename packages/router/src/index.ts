/**
 * The router's parts that remote pages use. Sharing this module instead of `react-router` lets the shell ship
 * its router tree-shaken to what it uses, while remotes still reach the shell's one router through it.
 */
export { Link, useLocation, useParams } from 'react-router';
