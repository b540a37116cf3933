// Node's HTTP-level failures (its parser's refusals, its request timeouts, a reset), as the status
// and message the servers answer them with; the JSON-RPC and Light /prove servers share it.

/** What an HTTP-level failure Node reports (its parser, its timeouts, a reset) is answered with. */
export function transportRefusal(err: NodeJS.ErrnoException): { reason: string; status: number; message: string } {
  const code = err.code ?? '';
  if (code === 'ECONNRESET' || code === 'EPIPE')
    return { reason: 'client_closed', status: 499, message: 'client closed the connection' };
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return {
      reason: 'timeout',
      status: 408,
      message: 'Request timeout: the request (headers and body) was not received in time',
    };
  if (code === 'HPE_HEADER_OVERFLOW')
    return {
      reason: 'headers_too_large',
      status: 431,
      message: 'Invalid request: the request line and headers exceed 16 KB (is the URL too long?)',
    };
  if (code === 'HPE_INVALID_CONTENT_LENGTH' || code === 'HPE_UNEXPECTED_CONTENT_LENGTH')
    return {
      reason: 'malformed',
      status: 400,
      message: 'Invalid request: malformed HTTP: invalid Content-Length header',
    };
  return {
    reason: 'malformed',
    status: 400,
    message: `Invalid request: malformed HTTP request${code.startsWith('HPE_') ? ` (${code.slice(4).toLowerCase().replace(/_/g, ' ')})` : ''}`,
  };
}
