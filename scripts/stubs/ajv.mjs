// Build-time stand-in for Ajv inside the bundle. conf only builds a validator when given a
// schema (conf's #setupValidator returns early otherwise) and svc never passes one, so Ajv's
// 150 KB would be loaded for nothing on every config write.
export class Ajv2020 {
  constructor() {
    throw new Error('svc bundles conf without Ajv: config schemas are not supported');
  }
}
export default function addFormats() {}
