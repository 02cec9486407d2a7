export interface LegalSection {
  id: string;
  heading: string;
  paragraphs?: string[];
  items?: string[];
}

export interface LegalDocumentContent {
  title: string;
  lastUpdated: string;
  intro: string;
  sections: LegalSection[];
  contact: { heading: string; text: string };
}
