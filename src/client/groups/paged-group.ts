import type { z } from 'zod';
import { PAGING } from '../../schemas';
import { PageIterator, type Page } from '../pagination';
import type { CallSpec, Transport } from '../transport';
import type { PageArgs, ZoneArgs } from './common';

/** How one page of a group's list is asked for: the path and the query beside `page` and `per_page`. */
export interface ListSpec<Args, S extends z.ZodType> {
  path(args: Args): string;
  /** The list's own query parameters (its filters); `page` and `per_page` come first, from the walk. */
  query?(args: Args & PageArgs): CallSpec<S>['query'];
  schema: S;
}

/**
 * A client group whose list the service pages with `page` and `per_page`: `list` walks every page (100 a page
 * unless `perPage` says otherwise), `listPage` fetches one with its result_info. The one place those two are written.
 */
export class PagedGroup<Args extends ZoneArgs & { perPage?: number }, S extends z.ZodType> {
  readonly #transport: Transport;
  readonly #spec: ListSpec<Args, S>;

  constructor(transport: Transport, spec: ListSpec<Args, S>) {
    this.#transport = transport;
    this.#spec = spec;
  }

  /** Every item, walking the pages. */
  list(args: Args): PageIterator<z.output<S>> {
    const perPage = args.perPage ?? PAGING.maxPerPage;
    return new PageIterator((page) => this.listPage({ ...args, page, perPage }), perPage);
  }

  /** One page with its result_info. */
  listPage(args: Args & PageArgs): Promise<Page<z.output<S>>> {
    const { path, query, schema } = this.#spec;
    return this.#transport.page({
      method: 'GET',
      path: path(args),
      query: { page: args.page, per_page: args.perPage, ...query?.(args) },
      schema,
    });
  }
}

/** The query of a list whose filters are its arguments as the service names them: every one beside the zone and the paging. */
export function filtersAsQuery<Args extends ZoneArgs & PageArgs>({ zoneId: _zone, page: _page, perPage: _perPage, ...filters }: Args) {
  return filters;
}
