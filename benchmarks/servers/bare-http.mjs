// Baseline: a bare node:http server answering every request with one constant JSON body.
import { createServer } from 'node:http';

const body = JSON.stringify({ jsonrpc: '2.0', result: 'ok', id: 1 });
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.stderr.write(`listening http://127.0.0.1:${server.address().port}/\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
