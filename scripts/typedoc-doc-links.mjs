// A typedoc plugin (typedoc.json's `plugin`): the doc comments cite the repository's documents as paths
// (`docs/service.md#policy-enabled`), which the package does not ship. In the API reference each such path becomes a
// link to the document in the repository (package.json's `repository`), so it resolves wherever the reference is read.
import { readFileSync } from 'node:fs';
import { Converter } from 'typedoc';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
/** A document path not already part of a link or a longer path, and its anchor. */
const CITED = /(?<![\w/.[-])(?<!\]\()((?:docs\/[\w-]+|README|BENCHMARKS|CHANGELOG)\.md)(#[\w-]+)?(?![\w/])/g;

/** The repository URL of a cited document. Pure. */
export function documentUrl(file, anchor = '') {
  return `${repository}/blob/main/${file}${anchor}`;
}

/** A comment's display parts with each cited document linked. Pure. */
export function linkCitedDocuments(parts) {
  return parts.map((part) => {
    if (part.kind === 'text') {
      return { ...part, text: part.text.replace(CITED, (path, file, anchor) => `[${path}](${documentUrl(file, anchor)})`) };
    }
    const code = part.kind === 'code' ? /^`((?:docs\/[\w-]+|README|BENCHMARKS|CHANGELOG)\.md)(#[\w-]+)?`$/.exec(part.text) : null;
    return code ? { kind: 'text', text: `[${part.text}](${documentUrl(code[1], code[2])})` } : part;
  });
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => {
    for (const reflection of Object.values(context.project.reflections)) {
      const { comment } = reflection;
      if (!comment) continue;
      comment.summary = linkCitedDocuments(comment.summary);
      for (const tag of comment.blockTags) tag.content = linkCitedDocuments(tag.content);
    }
  });
}
