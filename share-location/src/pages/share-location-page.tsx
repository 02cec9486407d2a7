import { shareTokenPattern } from '@gift/contracts';
import { useParams } from '@gift/router';
import { ShareLocationFlow } from '../components/share-location-flow.tsx';
import { shareLocation as copy } from '../content/share-location.content.ts';
import styles from '../components/share-location.module.css';

const validToken = new RegExp(shareTokenPattern);

/** `/share-location/<token>`: the link a sender's app sends to the gift's recipient. */
export function ShareLocationPage() {
  const token = (useParams()['*'] ?? '').replace(/\/+$/, '');
  const valid = validToken.test(token);
  return (
    <div className={styles.page}>
      <h1>{copy.title}</h1>
      <p className={styles.why}>{copy.why}</p>
      {valid ? (
        <ShareLocationFlow key={token} token={token} />
      ) : (
        <p className={styles.problem} role="alert">
          {copy.problems.badLink}
        </p>
      )}
    </div>
  );
}

export default ShareLocationPage;
