export PATH=$PATH:/usr/local/cuda/bin
for f in .regexp/*.cubin; do
  echo "== $f"
  cuobjdump --dump-resource-usage $f | grep -E "REG"
  cuobjdump --dump-sass $f > /tmp/s.txt
  echo "max reg: $(grep -oE '\bR[0-9]+\b' /tmp/s.txt | tr -d R | sort -n | tail -1)"
  echo "lines naming R>=168: $(grep -cE '\bR(1(6[8-9]|[7-9][0-9])|2[0-9][0-9])\b' /tmp/s.txt)"
  grep -n "USETMAXREG" /tmp/s.txt | head
  cp /tmp/s.txt $OUT/$(basename $f .cubin).sass
done
