import { useState } from 'react';
import { PAGE_SIZES } from './ListFooter.tsx';

/** What ListFooter needs to page a list. */
export interface PagingFooter {
  readonly pageNum: number;
  readonly pageSize: number;
  readonly onPage: (pageNum: number) => void;
  readonly onPageSize: (pageSize: number) => void;
}

/** A list's page number and size; a new page size goes back to page 1. Spread `footer` into ListFooter. */
export function usePaging(initialSize: number = PAGE_SIZES[0]): { pageNum: number; pageSize: number; setPageNum: (pageNum: number) => void; footer: PagingFooter } {
  const [pageNum, setPageNum] = useState(1);
  const [pageSize, setPageSize] = useState(initialSize);
  const onPageSize = (size: number) => {
    setPageSize(size);
    setPageNum(1);
  };
  return { pageNum, pageSize, setPageNum, footer: { pageNum, pageSize, onPage: setPageNum, onPageSize } };
}
