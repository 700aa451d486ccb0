"""Prior-work retrieval: corpus interface, local BM25/dense/hybrid index, judge-written queries, search APIs."""

from judgeaudit.retrieval.corpus import BUNDLED_CORPUS, Corpus, Document, Exclusion, load_corpus
from judgeaudit.retrieval.index import Hit, Retriever, SearchResult, get_retriever, search_for_idea

__all__ = [
    "BUNDLED_CORPUS",
    "Corpus",
    "Document",
    "Exclusion",
    "Hit",
    "Retriever",
    "SearchResult",
    "get_retriever",
    "load_corpus",
    "search_for_idea",
]
