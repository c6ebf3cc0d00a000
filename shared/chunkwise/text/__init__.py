"""Text as code points: ICU segmentation (sentences, words, graphemes) and the language guess."""
