import { gatewayConfig } from './config';

describe('STRAND_GATEWAY_PUBLIC_URL', () => {
  test('left out, the gateway has no public URL (the API document names each request\'s own address)', () => {
    expect(gatewayConfig({}).publicUrl).toBeUndefined();
  });

  test('is kept as origin and path, without a trailing slash', () => {
    expect(gatewayConfig({ STRAND_GATEWAY_PUBLIC_URL: ' https://strand.example.org/agent/ ' }).publicUrl).toBe('https://strand.example.org/agent');
    expect(gatewayConfig({ STRAND_GATEWAY_PUBLIC_URL: 'http://10.0.0.5:8080' }).publicUrl).toBe('http://10.0.0.5:8080');
  });

  test('a value that is no http(s) URL stops the gateway with a message naming it', () => {
    expect(() => gatewayConfig({ STRAND_GATEWAY_PUBLIC_URL: 'strand.example.org' })).toThrow('STRAND_GATEWAY_PUBLIC_URL=strand.example.org is not a URL (e.g. https://strand.example.org)');
    expect(() => gatewayConfig({ STRAND_GATEWAY_PUBLIC_URL: 'ftp://x' })).toThrow('STRAND_GATEWAY_PUBLIC_URL=ftp://x is not an http or https URL');
  });
});
