// Errors a request to toolgate can end with. toolgate answers every
// refused request with {"error": {"code", "message", "fields"?}} and a
// stable code; each code maps to one class here, so a caller can catch
// the class (or switch on `code`) instead of reading HTTP statuses.
//
// A tool that fails is not an error: its call ends with a tool_result
// whose is_error is true and a CallRecord whose error.code says why (a
// ToolErrorCode). Those come back as results, since the model must see
// them.

import type { components } from './openapi.js';

/** A request-level error code, as toolgate's openapi.yaml lists them. */
export type ErrorCode = components['schemas']['Error']['code'];

/** Why a tool call did not succeed (CallRecord.error.code). */
export type ToolErrorCode = components['schemas']['ToolErrorCode'];

/** Fields of the request that were wrong, by name, with what was wrong. */
export type ErrorFields = Record<string, string>;

/** Every error this package throws for a request toolgate refused or that never reached it. */
export class ToolgateError extends Error {
  /** toolgate's stable code ("not_found", "conflict", ...), or "connection" when no answer came. */
  readonly code: ErrorCode | 'connection';
  /** The HTTP status, 0 when no answer came. */
  readonly status: number;
  /** The request fields toolgate named as wrong (validation_failed). */
  readonly fields: ErrorFields;

  constructor(code: ErrorCode | 'connection', message: string, status: number, fields: ErrorFields = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.fields = fields;
  }
}

/** The request was malformed: bad_request, invalid_json, unsupported_media_type, body_too_large, not_acceptable. */
export class BadRequestError extends ToolgateError {}
/** A field of the request was wrong (validation_failed); `fields` names each with the reason. */
export class ValidationError extends BadRequestError {}
/** The request body did not reach toolgate in time (request_timeout). */
export class RequestTimeoutError extends ToolgateError {}
/** The token is missing, wrong, or the SSE ticket expired (unauthorized). */
export class AuthenticationError extends ToolgateError {}
/** The token lacks the route's scope, or the Host or Origin is not allowed (forbidden_scope, forbidden_host, forbidden_origin). */
export class PermissionDeniedError extends ToolgateError {}
/** No such session, call, job or route (not_found, method_not_allowed). */
export class NotFoundError extends ToolgateError {}
/** The request does not fit the state it met: a call no longer awaiting a decision, a file changed since (conflict, file_changed). */
export class ConflictError extends ToolgateError {}
/** A limit was reached: too_many_sessions, too_many_messages. */
export class LimitError extends ToolgateError {}
/** toolgate cannot serve the request now (unavailable, internal). */
export class ServerError extends ToolgateError {}
/** No answer came: the connection failed or was refused (code "connection"). */
export class APIConnectionError extends ToolgateError {}

type ErrorClass = new (code: ErrorCode, message: string, status: number, fields?: ErrorFields) => ToolgateError;

// classOf is the one table from code to class; a code this version does
// not know falls back on the status (errorFromResponse).
const classOf: Record<ErrorCode, ErrorClass> = {
  bad_request: BadRequestError,
  invalid_json: BadRequestError,
  validation_failed: ValidationError,
  unsupported_media_type: BadRequestError,
  body_too_large: BadRequestError,
  not_acceptable: BadRequestError,
  method_not_allowed: NotFoundError,
  request_timeout: RequestTimeoutError,
  unauthorized: AuthenticationError,
  forbidden_host: PermissionDeniedError,
  forbidden_origin: PermissionDeniedError,
  forbidden_scope: PermissionDeniedError,
  not_found: NotFoundError,
  conflict: ConflictError,
  file_changed: ConflictError,
  too_many_sessions: LimitError,
  too_many_messages: LimitError,
  internal: ServerError,
  unavailable: ServerError,
};

function classOfStatus(status: number): ErrorClass {
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionDeniedError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status === 429) return LimitError;
  if (status >= 500) return ServerError;
  return BadRequestError;
}

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(classOf, code);
}

/** errorFromBody turns a non-2xx answer's status and text into the matching error. */
export function errorFromBody(status: number, text: string): ToolgateError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const e = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof e === 'object' && e !== null) {
    const { code, message, fields } = e as { code?: unknown; message?: unknown; fields?: unknown };
    const msg = typeof message === 'string' ? message : `HTTP ${status}`;
    const f = typeof fields === 'object' && fields !== null ? (fields as ErrorFields) : {};
    if (isErrorCode(code)) return new classOf[code](code, msg, status, f);
    const cls = classOfStatus(status);
    return new cls(typeof code === 'string' ? (code as ErrorCode) : 'internal', msg, status, f);
  }
  const cls = classOfStatus(status);
  return new cls(status >= 500 ? 'internal' : 'bad_request', `HTTP ${status}: ${text.slice(0, 200)}`, status);
}

/** connectionError wraps a failed fetch (refused, reset, DNS) so callers catch one family. */
export function connectionError(cause: unknown): APIConnectionError {
  const msg = cause instanceof Error ? cause.message : String(cause);
  return new APIConnectionError('connection', `toolgate did not answer: ${msg}`, 0, {}, { cause });
}
