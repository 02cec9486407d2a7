import { useEffect } from 'react';
import { documentTitle, type PageMetadata } from '@gift/content';

/** Sets `attribute` on the head's `<tag keyAttribute="key">`, creating the tag when the page has none. */
function setHeadTag(tag: 'meta' | 'link', keyAttribute: string, key: string, attribute: string, value: string) {
  let element = document.head.querySelector(`${tag}[${keyAttribute}="${key}"]`);
  if (!element) {
    element = document.createElement(tag);
    element.setAttribute(keyAttribute, key);
    document.head.append(element);
  }
  element.setAttribute(attribute, value);
}

/**
 * Keeps the head in step with client-side navigation. The first page's tags come with the prerendered HTML
 * (`metadataTags`); this rewrites the ones that change from page to page.
 */
export function useDocumentMetadata({ title, description, path }: PageMetadata) {
  useEffect(() => {
    const full = documentTitle(title);
    const url = `${window.location.origin}${path}`;
    document.title = full;
    setHeadTag('link', 'rel', 'canonical', 'href', url);
    setHeadTag('meta', 'name', 'description', 'content', description);
    setHeadTag('meta', 'property', 'og:title', 'content', full);
    setHeadTag('meta', 'property', 'og:description', 'content', description);
    setHeadTag('meta', 'property', 'og:url', 'content', url);
    setHeadTag('meta', 'name', 'twitter:title', 'content', full);
    setHeadTag('meta', 'name', 'twitter:description', 'content', description);
  }, [title, description, path]);
}
