import { LegalDocument } from '../components/legal-document.tsx';
import { privacy } from '../content/privacy.content.ts';

export function PrivacyPage() {
  return <LegalDocument content={privacy} />;
}

export default PrivacyPage;
