#!/usr/bin/perl
# Fold `perf script` text into collapsed stacks by the documented rules of
# Brendan Gregg's stackcollapse-perf.pl (FlameGraph), written here for the
# tests as the oracle's stand-in (the script itself is not installed):
#
#   - lines starting with '#' are skipped; a blank line ends a sample;
#   - a sample header is "COMM TID[/PID-or-TID] ...": COMM is everything
#     before the first run of blanks followed by digits and a blank
#     (at least two characters), spaces in it become '_';
#   - when the header ends in "[PERIOD] EVENT:", only samples of the first
#     event seen are kept; --period adds PERIOD instead of 1 per sample
#     (what newer stackcollapse-perf.pl versions do);
#   - a frame line is "ADDR NAME (DSO)", read by the script's regex
#     /^\s*(\w+)\s*(.+) \((\S*)\)/ (a DSO with blanks splits elsewhere, or
#     the line is unrecognized and skipped); "+0x<hex>" at the end of NAME is
#     removed; frames whose NAME starts with '(' are dropped; NAME is split
#     on "->" and every part after the first gets "_[i]";
#   - "[unknown]" becomes "[" . basename(DSO) . "]" when DSO is not
#     "[unknown]" (and stays "[unknown]" otherwise);
#   - tidy: ';' -> ':', unless NAME looks like a Go method (".(...).")
#     everything from the first '(' not opening "(anonymous namespace)" is
#     cut, '"' and "'" are deleted; in processes named java* a leading 'L'
#     goes when the name contains '/';
#   - the stack is COMM then the frames from the outermost caller to the
#     leaf, joined by ';'; output "STACK COUNT" lines sorted bytewise.
use strict;
use warnings;

my $by_period = @ARGV && $ARGV[0] eq '--period' ? shift @ARGV : 0;
my (%count, @frames, $comm, $weight, $first_event);

sub tidy_name {
	my ($name, $java) = @_;
	$name =~ tr/;/:/;
	unless ($name =~ /\.\(.*\)\./) {
		$name =~ s/\((?!anonymous namespace\)).*//;
	}
	$name =~ tr/"'//d;
	$name =~ s/^L// if $java && $name =~ m{/};
	return $name;
}

sub end_sample {
	if (defined $comm) {
		my $key = join(';', $comm, @frames);
		$count{$key} += $weight;
	}
	@frames = ();
	undef $comm;
}

while (my $line = <>) {
	next if $line =~ /^#/;
	chomp $line;
	if ($line eq '') {
		end_sample();
		next;
	}
	if ($line =~ /^(\S.+?)\s+\d+\/*\d*\s+/) {
		my $c = $1;
		$weight = 1;
		if ($line =~ /:\s*(\d+)?\s+(\S+):\s*$/) {
			my ($period, $event) = ($1, $2);
			$first_event = $event unless defined $first_event;
			next if $event ne $first_event;     # leaves $comm undefined: sample ignored
			$weight = $period if $by_period && $period;
		}
		($comm = $c) =~ tr/ /_/;
		next;
	}
	if ($line =~ /^\s*(\w+)\s*(.+) \((\S*)\)/) {
		next unless defined $comm;
		my ($name, $dso) = ($2, $3);
		$name =~ s/\+0x[\da-f]+$//;
		next if $name =~ /^\(/;
		my @parts;
		for my $part (split /->/, $name) {
			if ($part eq '[unknown]' && $dso ne '[unknown]') {
				(my $base = $dso) =~ s{.*/}{};
				$part = "[$base]";
			}
			$part = tidy_name($part, $comm =~ /^java/);
			$part .= '_[i]' if @parts && $part !~ /_\[i\]/;
			push @parts, $part;
		}
		unshift @frames, @parts;
		next;
	}
	print STDERR "collapse-perf: unrecognized line: $line\n";
}
end_sample();
print "$_ $count{$_}\n" for sort keys %count;
