import styles from './call-to-action.module.css';

/** The classes of a page's call to action, for the link that carries it (`Link`, `ExternalLink`). */
export const callToActionClass = { primary: styles.primary, inverse: styles.inverse };
