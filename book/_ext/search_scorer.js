/* The site's search ranking (Sphinx's html_search_scorer, read before searchtools.js).
   A chapter that mentions a concept ranks above the API entries whose names contain it
   ("mollifier" finds chapter 18 before simkit.contact.edge_edge_mollifier); an API entry whose
   whole name is the query ("psd_project") still comes first; Start here and the notation page
   rank between the two. */
var Scorer = {
  score: result => {
    const [docname, title, anchor, descr, score, filename] = result;
    const isObject = descr !== null && descr !== undefined;   // an API entry found by its name
    if (isObject) {
      const query = (new URLSearchParams(window.location.search).get("q") || "").trim().toLowerCase();
      const name = title.toLowerCase();
      return name === query || name.split(".").pop() === query ? score + 40 : score;
    }
    if (/^book\/\d{3}_/.test(docname)) return score + 20;     // a chapter
    if (docname === "book/start_here" || docname === "book/notation") return score + 10;
    return score;
  },
  // Sphinx's defaults for the rest
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: {0: 15, 1: 5, 2: -5},
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
