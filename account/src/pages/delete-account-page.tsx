import { DeletionRequestForm } from '../components/deletion-request-form.tsx';
import { deleteAccount } from '../content/delete-account.content.ts';
import styles from './delete-account-page.module.css';

export function DeleteAccountPage() {
  const { whatHappensNext } = deleteAccount;
  return (
    <div className={styles.page}>
      <div className={styles.heading}>
        <h1>{deleteAccount.title}</h1>
        <p className={styles.intro}>{deleteAccount.intro}</p>
        <p>{deleteAccount.emailNote}</p>
      </div>
      <div className={styles.card}>
        <DeletionRequestForm />
      </div>
      <section className={styles.next} aria-labelledby="what-happens-next">
        <h2 id="what-happens-next">{whatHappensNext.title}</h2>
        <ul>
          {whatHappensNext.items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
        <p>{whatHappensNext.contact}</p>
      </section>
    </div>
  );
}

export default DeleteAccountPage;
