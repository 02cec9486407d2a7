import type { FromSchema } from 'json-schema-to-ts';

import { apiPrefix } from './api-prefix.ts';

export { apiPrefix };

/** Where the API answers: the browser posts to these, the API registers them (without the prefix). */
export const apiPaths = {
  deleteAccount: `${apiPrefix}/delete-account`,
  lookUpConfirmation: `${apiPrefix}/delete-account/confirmation`,
  confirm: `${apiPrefix}/delete-account/confirm`,
  shareLocation: `${apiPrefix}/share-location`,
} as const;

/** A path of `apiPaths` as the API registers it, under its prefix. */
export const apiRoute = (path: string) => path.slice(apiPrefix.length);

/**
 * What a text field may hold, as the API's Ajv formats: no control characters (NUL, ESC, DEL, C1...), which have no
 * place in a name or an address, break storage (PostgreSQL refuses NUL) and can drive an operator's terminal.
 */
export const textFormats = {
  'single-line': {
    pattern: /^[^\p{Cc}]*$/u,
    message: 'must be one line of text, without control characters',
  },
  text: {
    pattern: /^(?:[\t\n\r]|[^\p{Cc}])*$/u,
    message: 'must be text without control characters (line breaks and tabs are fine)',
  },
} as const;

export type TextFormat = keyof typeof textFormats;

export const deletionRequestLimits = { name: 200, email: 254, reason: 2000 } as const;

export const deletionRequestSchema = {
  type: 'object',
  required: ['name', 'email', 'reason'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', maxLength: deletionRequestLimits.name, format: 'single-line' },
    email: { type: 'string', maxLength: deletionRequestLimits.email, format: 'single-line' },
    reason: { type: 'string', maxLength: deletionRequestLimits.reason, format: 'text' },
  },
} as const;

export type DeletionRequestBody = FromSchema<typeof deletionRequestSchema>;

/** The one answer to a valid deletion request, new or repeated: nothing in it tells the two apart. */
export type DeletionRequestAccepted = { status: 'received' };

/** The token a confirmation link carries in its fragment: 32 random bytes, base64url. */
export const confirmationTokenPattern = '^[A-Za-z0-9_-]{43}$';

export const confirmationTokenSchema = {
  type: 'object',
  required: ['token'],
  additionalProperties: false,
  properties: { token: { type: 'string', pattern: confirmationTokenPattern } },
} as const;

export type ConfirmationTokenBody = FromSchema<typeof confirmationTokenSchema>;

/** What a valid confirmation link confirms (or, once confirmed, did), shown to the owner of the address. */
export interface ConfirmationDetails {
  reference: string;
  /** Masked: `a***@example.com`. */
  email: string;
  receivedAt: string;
  status: 'received' | 'verified';
}

/** What can be wrong with a confirmation link, and the status the API answers each with. */
export const linkProblems = {
  unknown: { status: 404, message: 'This confirmation link is not valid.' },
  expired: { status: 410, message: 'This confirmation link has expired.' },
  used: { status: 409, message: 'This confirmation link has already been used.' },
} as const;

export type LinkProblem = keyof typeof linkProblems;

/**
 * Share-link tokens are URL-safe random strings made by the sender's app, at least as long as the links the site
 * issues itself (32 random bytes in base64url: 43 characters), so that none is short enough to guess.
 */
export const shareTokenMinLength = 43;
export const shareTokenPattern = `^[A-Za-z0-9_-]{${shareTokenMinLength},128}$`;

export const addressMaxLength = 500;

export const locationShareSchema = {
  type: 'object',
  required: ['token'],
  additionalProperties: false,
  properties: {
    token: { type: 'string', pattern: shareTokenPattern },
    position: {
      type: 'object',
      required: ['latitude', 'longitude', 'accuracy'],
      additionalProperties: false,
      properties: {
        latitude: { type: 'number', minimum: -90, maximum: 90 },
        longitude: { type: 'number', minimum: -180, maximum: 180 },
        accuracy: { type: 'number', minimum: 0, maximum: 100_000 },
      },
    },
    address: { type: 'string', maxLength: addressMaxLength, format: 'text' },
  },
} as const;

export type LocationShareBody = FromSchema<typeof locationShareSchema>;

/** Every refusal of the API: a 4xx with what went wrong, and which field when one did. */
export interface ApiProblem {
  error: string;
  field?: string | null;
  message: string;
}

/** The largest release manifest a site server reads: six entries take a few hundred bytes. */
export const maxManifestBytes = 64 * 1024;

/**
 * A remote's entry as a manifest names it: a path on the site or an http(s) URL, ending in `remoteEntry.js`, with an
 * optional plain query (a build's version); never `..`, never a scheme other than http(s).
 */
export const manifestEntryPattern =
  '^(?!.*\\.\\.)(?:https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?)?/[A-Za-z0-9._~/-]*remoteEntry\\.js(?:\\?[A-Za-z0-9._~=&-]{0,200})?$';

/** The release manifest (`{ "<remote>": "<entry URL>" }`): known remote names only, each an entry of that shape. */
export const remotesManifestSchema = (remoteNames: readonly string[]) =>
  ({
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(
      remoteNames.map((name) => [name, { type: 'string', maxLength: 2048, pattern: manifestEntryPattern }]),
    ),
  }) as const;
