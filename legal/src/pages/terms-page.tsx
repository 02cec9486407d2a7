import { LegalDocument } from '../components/legal-document.tsx';
import { terms } from '../content/terms.content.ts';

export function TermsPage() {
  return <LegalDocument content={terms} />;
}

export default TermsPage;
